"""Combat's kind of event in the campaign's log (`campaign_log.kinds`): a fight's or a
chronicle's record, its lines the GM's and, under "players", the players' (its NPC
numbers may be the GM's alone), so it is rendered once for each. Registered by
`combat.apps.CombatConfig.ready`."""

from campaign_log.kinds import EventKind, register
from campaign_log.reading import json_column, json_text
from combat.models import CombatRecord, Encounter
from combat.services import record_payload, records_payloads
from rules.engine import engine_for


def _read(qn):
    columns = {
        "kind": "e.command", "who": "e.actor_name", "data": json_text("e.lines"),
        "public": json_text("e.public_lines"), "ref": "e.encounter_id",
        "version": "e.version", "system": "x.system", "encounter_kind": "x.kind",
    }
    return columns, f"JOIN {qn(Encounter._meta.db_table)} x ON x.id = e.encounter_id"


def _from_row(common: dict, f: dict, engines: dict) -> dict:
    key = (f["system"], f["encounter_kind"])
    if key not in engines:
        engines[key] = engine_for(*key)
    record = CombatRecord(
        **common, encounter_id=f["ref"], version=f["version"], actor_name=f["who"],
        command=f["kind"], lines=json_column(f["data"]), public_lines=json_column(f["public"]),
    )
    return record_payload(record, engines[key])


def _messages(pks: list[int]) -> list[tuple[int, dict]]:
    found = list(CombatRecord.objects.select_related("encounter").filter(pk__in=pks))
    return list(zip((row.pk for row in found), records_payloads(found), strict=True))


RECORD = EventKind(
    name="combat",
    model=CombatRecord,
    read=_read,
    from_row=_from_row,
    messages=_messages,
    message_kinds=("combat",),
    line="combat/_line.html",
    audiences=("gm", "player"),
)


def register_kinds() -> None:
    register(RECORD)
