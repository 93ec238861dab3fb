"""Encounters: run a command against the stored log, number it, broadcast it.

This module knows no rule system: it asks the campaign's engine (`rules.engine`) to parse,
check, decide, evolve, describe and show, and stores what the engine returns.

- **One version at a time.** A command is decided against the state at the version it
  was made against; one INSERT (`insert_record`) then takes the campaign's next number
  and stores the record under the unique (encounter, version), and its trigger moves the
  encounter's version on. Of two commands made against one version exactly one is
  stored; the other changes nothing (`Stale`, HTTP 409).
- **The state is the fold of the log**, kept per process for the encounter's latest
  version (`folded`). When another process moved the fight on, only the records after
  the state this process holds are read and folded in, so a command costs the same
  whichever process made the last one; a restart reads the whole log again (`make
  bench` measures rebuilding 500-event and 500-record encounters).
- **One ordered stream per campaign.** A record takes the campaign's next sequence number
  (as a roll takes it) and goes to the open pages after commit, with its log lines
  rendered once per audience by the table's stream.
"""

import functools
import json
import logging
import secrets
import threading
from collections import OrderedDict
from datetime import timedelta
from decimal import Decimal

from django.db import IntegrityError, connection, transaction
from django.db.models import Exists, OuterRef, Q, TextField
from django.db.models.functions import Cast
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.html import strip_tags
from django.utils.text import Truncator
from django.utils.translation import get_language

from campaign_log.broadcast import get_broadcaster
from campaign_log.numbering import insert_numbered, public_payload
from campaigns.models import Campaign
from combat import scoped
from combat.models import CatalogueItem, CombatRecord, Encounter
from rules import scene
from rules.engine import REDO, UNDO, Record, Replay, Viewer, decode, encode, engine_for, replay
from rules.engine import replay_step as fold_step
from rules.errors import RulesError
from rules.table_dice import TableDice

log = logging.getLogger(__name__)

rng = secrets.SystemRandom()  # tests replace it with scripted dice
GM = Viewer(is_gm=True)
PLAYERS = Viewer(is_gm=False)
CACHE_SIZE = 512  # encounters whose latest state a process keeps (a few KiB to ~100 each)
PROMPT_TIMEOUT = timedelta(seconds=20)  # then the one waiting may take the offered default


class Stale(Exception):
    """The command was made against an older version: the situation changed."""

    def __init__(self, version: int):
        super().__init__(f"the situation changed (now version {version})")
        self.version = version


class NotYours(Exception):
    """The member does not command that combatant."""


_cache: "OrderedDict[int, tuple[int, Replay]]" = OrderedDict()
_cache_lock = threading.Lock()


@functools.cache
def _encounter_sql(vendor: str) -> str:
    qn = connection.ops.quote_name
    from combat.models import Simulation

    table = qn(Encounter._meta.db_table)
    columns = ", ".join(qn(field.column) for field in Encounter._meta.concrete_fields)
    # The encounter's latest simulation (issue 29), so a page of a fight nobody simulated
    # asks nothing more for it.
    latest = (f"(SELECT MAX({qn('id')}) FROM {qn(Simulation._meta.db_table)} "
              f"WHERE {qn('encounter_id')} = {table}.{qn('id')}) AS latest_simulation_id")
    return f"SELECT {columns}, {latest} FROM {table} WHERE {qn('id')} = %s"


def encounter_row(pk: int) -> Encounter | None:
    """The encounter `pk`, or None: a command's first read, in one short statement (a
    quarter of the ORM's time to build the same SELECT)."""
    found = list(Encounter.objects.raw(_encounter_sql(connection.vendor), [pk]))
    return found[0] if found else None


def engine_of(encounter: Encounter):
    return engine_for(encounter.system, encounter.kind)


def initial_state(encounter: Encounter, engine=None):
    engine = engine or engine_of(encounter)
    return engine.new_state(encounter.house_rules, name=encounter.name)


def records(encounter_id: int, engine, versions=None, upto: int | None = None) -> list[Record]:
    rows = CombatRecord.objects.filter(encounter_id=encounter_id)
    if versions is not None:
        rows = rows.filter(version__in=list(versions))
    if upto is not None:  # the log as it was at a version (a row read a moment ago)
        rows = rows.filter(version__lte=upto)
    types = engine.event_types
    return [
        Record(version, tuple(decode(e, types) for e in events), undo_to, redo)
        for version, events, undo_to, redo in rows.order_by("version").values_list(
            "version", "events", "undo_to", "redo"
        )
    ]


def folded(encounter: Encounter, engine=None) -> Replay:
    """The encounter's state at its stored version: from this process's cache; when
    another process moved the fight on since, the cached state with only the newer
    records folded in; else (a restart, an encounter not seen lately) the fold of its
    whole log."""
    engine = engine or engine_of(encounter)
    with _cache_lock:
        cached = _cache.get(encounter.pk)
        if cached is not None and cached[0] == encounter.version:
            _cache.move_to_end(encounter.pk)
            return cached[1]
    result = None
    if cached is not None and cached[0] < encounter.version:
        result = fold_newer(encounter, engine, *cached)
    if result is None:
        log_ = records(encounter.pk, engine, upto=encounter.version)
        result = replay(engine, initial_state(encounter, engine), log_)
    remember(encounter.pk, encounter.version, result)
    return result


def folded_at(encounter: Encounter, version: int, engine=None) -> Replay:
    """The encounter's state as it was at `version` (a simulated run's, claimed by any
    process): the cached fold when the fight is still there, else the log folded up to
    that version."""
    engine = engine or engine_of(encounter)
    if version == encounter.version:
        return folded(encounter, engine)
    log_ = records(encounter.pk, engine, upto=version)
    return replay(engine, initial_state(encounter, engine), log_)


@functools.cache
def _records_between_sql(vendor: str) -> str:
    qn = connection.ops.quote_name
    return (
        f"SELECT {qn('version')}, {qn('events')}, {qn('undo_to')}, {qn('redo')} "
        f"FROM {qn(CombatRecord._meta.db_table)} WHERE {qn('encounter_id')} = %s "
        f"AND {qn('version')} > %s AND {qn('version')} <= %s ORDER BY {qn('version')}"
    )


def records_between(encounter_id: int, engine, after: int, upto: int) -> list[Record]:
    """The records after version `after` up to `upto`, in one short statement built once
    (what a command on a fight another process moved on reads: the ORM's query cost
    half of that command's extra time)."""
    with connection.cursor() as cursor:
        cursor.execute(_records_between_sql(connection.vendor), [encounter_id, after, upto])
        rows = cursor.fetchall()
    types = engine.event_types
    return [
        Record(
            version,
            tuple(decode(e, types) for e in json.loads(events)),
            undo_to,
            bool(redo),
        )
        for version, events, undo_to, redo in rows
    ]


def fold_newer(encounter: Encounter, engine, version: int, known: Replay) -> Replay | None:
    """The state at the encounter's version from `known`, the state at `version`: its
    records after `version` folded in (one query; an undo among them reads the records
    it keeps). None when those records do not run on from `version` (the log is not the
    one `known` was folded from)."""
    newer = records_between(encounter.pk, engine, version, encounter.version)
    if [record.version for record in newer] != list(range(version + 1, encounter.version + 1)):
        return None
    initial = (
        initial_state(encounter, engine)
        if any(record.undo_to is not None for record in newer) else None
    )

    def lookup(versions):
        wanted = list(versions)
        return records(encounter.pk, engine, wanted) if wanted else []

    result = known
    for record in newer:
        result = fold_step(engine, result, record, lookup, initial)
    return result


def remember(encounter_id: int, version: int, result: Replay) -> None:
    """Keep the newest state of an encounter (a reader of an older version never replaces
    a newer one)."""
    with _cache_lock:
        cached = _cache.get(encounter_id)
        if cached is not None and cached[0] > version:
            return
        _cache[encounter_id] = (version, result)
        _cache.move_to_end(encounter_id)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)


def forget(encounter_id: int | None = None) -> None:
    with _cache_lock:
        if encounter_id is None:
            _cache.clear()
            _move_names.clear()
        else:
            _cache.pop(encounter_id, None)
            for key in [k for k in _move_names if k[0] == encounter_id]:
                _move_names.pop(key, None)


def catalogue(campaign_id: int, engine) -> dict[str, dict]:
    """The engine's starter catalogue with the campaign's own items over it."""
    items = engine.catalogue()
    for kind, key, data in CatalogueItem.objects.filter(campaign_id=campaign_id).values_list(
        "kind", "key", "data"
    ):
        try:
            items.setdefault(kind, {})[key] = engine.item_from_dict(kind, data)
        except RulesError:
            log.warning("combat: campaign %s has an unreadable %s %r", campaign_id, kind, key)
    return items


def character_catalogue(character) -> dict[str, dict]:
    """The catalogue a character's equipment is chosen from: its campaign's, or the
    starter catalogue of the default rule system for a character in no campaign."""
    if character.campaign_id is None:
        try:
            return engine_for("aoristos").catalogue()
        except RulesError:
            return {}
    system = character.campaign.rule_system
    try:
        engine = engine_for(system)
    except RulesError:
        return {}
    return catalogue(character.campaign_id, engine)


def character_gear(character, items: dict[str, dict]) -> tuple[list[str], list[str]]:
    """The catalogue keys of the weapons and the armour a character carries."""
    weapons, armour = [], []
    for entry in character.items.exclude(catalogue="").values_list("catalogue", flat=True):
        kind, _sep, key = entry.partition(":")
        if key in items.get(kind, {}):
            (weapons if kind == "weapon" else armour).append(key)
    return list(dict.fromkeys(weapons)), list(dict.fromkeys(armour))


def character_armour_keep(*, character, keys, items: dict[str, dict]) -> list[str]:
    """Armour the GM puts on a character joining a fight is the character's armour (issue
    26): each catalogue key it does not carry yet becomes an item of its equipment, named
    and weighed from the catalogue as the sheet's own form fills them (0 where the
    catalogue gives no weight: Phobia and T10 armour). Returns the keys added."""
    from characters.models import Item  # combat builds on characters

    carried = set(character.items.filter(catalogue__startswith="armour:")
                  .values_list("catalogue", flat=True))
    added = []
    for key in dict.fromkeys(keys):
        entry = items.get("armour", {}).get(key)
        if entry is None or f"armour:{key}" in carried:
            continue
        bulk = Decimal(str(round(min(getattr(entry, "bulk", 0) or 0, 999), 1)))
        Item.objects.create(character=character, name=entry.name[:100], bulk=bulk,
                            catalogue=f"armour:{key}")
        added.append(key)
    return added


class LazyCatalogue:
    """One kind of the campaign's catalogue, read from the database on first use: most
    commands never look an item up."""

    def __init__(self, campaign_id: int, engine, kind: str):
        self.campaign_id, self.engine, self.kind = campaign_id, engine, kind
        self._items: dict | None = None

    def _load(self) -> dict:
        if self._items is None:
            self._items = catalogue(self.campaign_id, self.engine).get(self.kind, {})
        return self._items

    def __bool__(self) -> bool:
        return True

    def __contains__(self, key) -> bool:
        return key in self._load()

    def __getitem__(self, key):
        return self._load()[key]

    def get(self, key, default=None):
        return self._load().get(key, default)


def stat_names(engine, campaign) -> dict[str, str] | None:
    """The campaign's names for its rule system's stats, by key, for an engine that shows
    them as the campaign names them (T10: three abilities are house rules); else None."""
    if not getattr(engine, "named_stats", False):
        return None
    attributes, skills = campaign.system.stats(campaign.house())
    return {stat.key: stat.term.swedish for stat in (*attributes, *skills)}


def viewer_for(encounter: Encounter, membership) -> Viewer:
    return Viewer(is_gm=membership.is_gm, controls=encounter.controls(membership.user_id))


def encounter_create(*, campaign, name: str, house_rules: dict) -> Encounter:
    engine = engine_for(campaign.rule_system)
    engine.new_state(house_rules)  # refuses bad house rules before anything is stored
    return Encounter.objects.create(
        campaign=campaign, name=name, system=campaign.rule_system, house_rules=house_rules
    )


def command_run(
    *,
    membership,
    data: dict,
    version: int,
    encounter: Encounter | None = None,
    encounter_id: int | None = None,
    controller: int | None = None,
) -> tuple[Encounter, CombatRecord, Replay]:
    """Run one command (`data`, e.g. {"type": "attack", ...}, or {"type": "undo", "to": 3}
    or {"type": "redo"}) made against `version`, for `membership`'s user. Raises Stale,
    NotYours or RulesError (a reason for the user) and then changes nothing.

    `encounter` is the row as the caller read it (or give `encounter_id`). The command is
    decided against the state at that row's version, outside any transaction; then one
    statement numbers it and stores it as the next version (a transaction with the
    encounter's row when the command ends the fight or gives a combatant a controller):
    the unique (encounter, version) makes a command made against an older state fail as
    Stale, however the requests interleave. `controller`: for an add_combatant of a
    character, the user who commands it."""
    if encounter is None:
        encounter = Encounter.objects.get(pk=encounter_id, campaign_id=membership.campaign_id)
    if encounter.campaign_id != membership.campaign_id:
        raise Encounter.DoesNotExist
    if version != encounter.version:
        raise Stale(encounter.version)
    engine = engine_of(encounter)
    before = folded(encounter, engine)
    kind = data.get("type") if isinstance(data, dict) else None
    new_version = encounter.version + 1
    controllers = dict(encounter.controllers)
    if kind in (UNDO, REDO):
        if not membership.is_gm:
            raise NotYours
        record, after, events = undo_or_redo(encounter, engine, before, data, new_version)
        lines, public = undo_lines(record, before, after)
        stored_events = []
    else:
        command = engine.parse_command(
            data,
            weapons=LazyCatalogue(encounter.campaign_id, engine, "weapon"),
            armour=LazyCatalogue(encounter.campaign_id, engine, "armour"),
        )
        check_actor(encounter, engine, before, command, membership)
        scoped.command(encounter, command)  # every row it names is this campaign's
        play = getattr(engine, "play", None)  # a fight's engine folds what it decides once
        if play is not None:
            dice = dice_for(encounter, membership.campaign, before.state)
            events, played = play(before.state, command, dice)
        else:  # the chronicle's
            events, played = engine.decide(before.state, command, rng), None
        record = Record(new_version, tuple(events))
        after = fold_step(engine, before, record, lambda v: (), None, played)
        names = stat_names(engine, membership.campaign)
        lines = engine.describe(before.state, events, GM, names)
        public = engine.describe(before.state, events, PLAYERS, names)
        stored_events = [encode(event) for event in events]
        if controller is not None:
            for event in events:
                added = getattr(event, "combatant", None)
                if added is not None:
                    controllers[added.id] = controller
    ended = bool(getattr(after.state, "ended", False))
    was_ended = encounter.ended
    stored = CombatRecord(
        campaign_id=encounter.campaign_id,
        encounter_id=encounter.pk,
        version=new_version,
        actor=membership.user,
        actor_name=membership.user.username,
        command=str(kind)[:30],
        events=stored_events,
        undo_to=record.undo_to,
        redo=record.redo,
        lines=lines,
        public_lines=public,
        created_at=timezone.now(),
    )
    if ended == encounter.ended and controllers == encounter.controllers:
        inserted = insert_record(stored)  # one statement, its own transaction
    else:
        with transaction.atomic():
            inserted = insert_record(stored)
            if inserted:
                Encounter.objects.filter(pk=encounter.pk).update(
                    ended=ended, controllers=controllers
                )
    if not inserted:
        current = Encounter.objects.filter(pk=encounter.pk).values_list("version", flat=True)
        raise Stale(current.first() or version)
    message = record_payload(stored, engine)

    def published():
        remember(encounter.pk, new_version, after)
        get_broadcaster().publish(encounter.campaign_id, message)

    transaction.on_commit(published)
    encounter.version, encounter.ended, encounter.controllers = new_version, ended, controllers
    stored.encounter = encounter
    if ended and not was_ended and encounter.kind == Encounter.Kind.COMBAT:
        chronicle_import(encounter, membership)
    return encounter, stored, after


def dice_for(encounter: Encounter, campaign, state):
    """The dice a fight's command rolls with (issue 48): the server's, or, where the
    campaign rolls its own, a `TableDice` that waits for the faces of the combatants
    whose dice the table rolls: the players' characters (those a player commands), the
    GM's combatants (the rest), or both, as the campaign's `dice_source` says."""
    source = campaign.dice_source
    if source == Campaign.DiceSource.SERVER or encounter.kind != Encounter.Kind.COMBAT:
        return rng
    players = source in (Campaign.DiceSource.PLAYERS, Campaign.DiceSource.ALL)
    gm = source in (Campaign.DiceSource.GM, Campaign.DiceSource.ALL)
    controlled = encounter.controllers
    physical = {c.id for c in getattr(state, "combatants", ())
                if (players and c.id in controlled) or (gm and c.id not in controlled)}
    return TableDice(rng, physical)


INSERTED = (
    "campaign",
    "encounter",
    "version",
    "actor",
    "actor_name",
    "command",
    "events",
    "undo_to",
    "redo",
    "lines",
    "public_lines",
    "created_at",
)


def insert_record(record: CombatRecord) -> bool:
    """Store `record` as the campaign's next event and its encounter's next version, in one
    statement (`campaign_log.numbering.insert_numbered`); set its pk and seq. False when that
    version is taken (nothing stored): of two records of one version the unique
    (encounter, version) keeps the first. The trigger of combat migration 0002 moves the
    encounter's ``version`` up to the record's inside the statement."""
    return insert_numbered(record, INSERTED, '("encounter_id", "version")')


def undo_or_redo(encounter, engine, before: Replay, data: dict, new_version: int):
    """The GM goes back to any earlier version, or forward again (no die rolls again)."""
    if data["type"] == UNDO:
        target = data.get("to")
        if isinstance(target, bool) or not isinstance(target, int):
            raise RulesError("undo needs the version to go back to", code="bad_field")
        if target not in (0, *before.applied[:-1]) or not before.applied:
            raise RulesError(f"cannot go back to version {target}", code="bad_undo")
        record = Record(new_version, undo_to=target)
    else:
        if not before.can_redo:
            raise RulesError("nothing to redo", code="nothing_to_redo")
        record = Record(new_version, redo=True)

    def lookup(versions):
        return records(encounter.pk, engine, versions)

    after = fold_step(engine, before, record, lookup, initial_state(encounter, engine))
    return record, after, ()


def undo_lines(record: Record, before: Replay, after: Replay) -> tuple[list[dict], list[dict]]:
    """An undo's or a redo's log line, the GM's and the players': the versions it takes
    back (``undone``) or brings back (``redone``), which the pages grey or show again
    (`combat/_line.html`). Only the GM's line names the version gone back to."""
    if record.undo_to is not None:
        undone = [v for v in before.applied if v not in after.applied]
        public = {"kind": "Undo", "undone": undone}
        return [{**public, "to": record.undo_to}], [public]
    line = {"kind": "Redo", "redone": [v for v in after.applied if v not in before.applied]}
    return [line], [line]


def undone_versions(rows) -> dict[int, frozenset[int]]:
    """The versions of commands each encounter of `rows` (combat records with their
    encounter) holds undone at its stored version: records that are neither undos nor
    redos and that the fold leaves out. An unreadable log undoes nothing."""
    applied: dict[int, frozenset[int] | None] = {}
    found: dict[int, set[int]] = {}
    for row in rows:
        if row.encounter_id not in applied:
            try:
                applied[row.encounter_id] = frozenset(folded(row.encounter).applied)
            except RulesError:
                applied[row.encounter_id] = None
        kept = applied[row.encounter_id]
        if kept is not None and row.command not in (UNDO, REDO) and row.version not in kept:
            found.setdefault(row.encounter_id, set()).add(row.version)
    return {pk: frozenset(versions) for pk, versions in found.items()}


MOVE_NAME_LENGTH = 70  # characters of a move's log line in the undo menu


MOVE_NAMES_KEPT = 4096  # named moves kept in this process (a record never changes)
_move_names: OrderedDict[tuple, dict] = OrderedDict()


def move_names(encounter: Encounter, engine, versions) -> dict[int, dict]:
    """Each record of `versions` named for the GM's undo menu: its log lines as plain
    text (the GM's, shortened) and who made it, by version. A record never changes, so
    its name is rendered once per language and kept (the panel is answered after every
    command: 13 renderings each time cost a GM's answer 12 ms); at most one query."""
    language = get_language()
    names = {}
    missing = []
    with _cache_lock:
        for version in versions:
            key = (encounter.pk, version, language)
            if key in _move_names:
                _move_names.move_to_end(key)
                names[version] = _move_names[key]
            else:
                missing.append(version)
    if not missing:
        return names
    rows = CombatRecord.objects.filter(encounter_id=encounter.pk, version__in=missing)
    template = f"{engine.template}/_line.html"
    for version, lines, actor in rows.values_list("version", "lines", "actor_name"):
        text = " ".join(strip_tags(render_to_string(template, {"lines": lines})).split())
        names[version] = {"version": version, "actor": actor,
                          "text": Truncator(text).chars(MOVE_NAME_LENGTH)}
    with _cache_lock:
        for version in missing:
            if version in names:
                _move_names[(encounter.pk, version, language)] = names[version]
        while len(_move_names) > MOVE_NAMES_KEPT:
            _move_names.popitem(last=False)
    return names


def undo_menu(encounter: Encounter, engine, result: Replay, size: int) -> dict:
    """The GM's undo and redo forms: each of the latest `size` moves still applied, newest
    first, named by its log line and its maker, with the version to go back to to undo it
    and all after it (``to``); and the move a redo brings back."""
    shown = result.applied[-size:]
    offset = len(result.applied) - len(shown)
    redo = result.redoable[-1].version if result.redoable else None
    names = move_names(encounter, engine, [*shown, *([redo] if redo else [])])
    choices = []
    for position, version in enumerate(shown, start=offset):
        to = result.applied[position - 1] if position else 0
        named = names.get(version, {"version": version, "actor": "", "text": ""})
        choices.append({**named, "to": to})
    return {"undo_choices": choices[::-1], "redo_move": names.get(redo)}


def check_actor(encounter, engine, before: Replay, command, membership) -> None:
    """The GM commands everything; a player only the combatants they control. When a
    prompt has waited PROMPT_TIMEOUT for its answer, the player of the combatant the
    engine names as waiting for it (`timeout_actor`) may give the offered default."""
    if membership.is_gm:
        return
    controls = encounter.controls(membership.user_id)
    # A combatant in the fog is not there for a player (rules.scene.check_seen).
    scene.check_seen(before.state, command, Viewer(False, controls))
    actor = engine.actor_of(before.state, command)
    if actor is not None and actor in controls:
        return
    waiting = engine.timeout_actor(before.state, command)
    if waiting is not None and waiting in controls:
        last = (
            CombatRecord.objects.filter(encounter=encounter)
            .order_by("-version")
            .values_list("created_at", flat=True)
            .first()
        )
        if last is not None and timezone.now() - last >= PROMPT_TIMEOUT:
            return
    raise NotYours


def record_payload(record: CombatRecord, engine) -> dict:
    """A record as the table's stream carries it: the GM's lines, and the players' under
    "players" (`campaign_log.audiences.visible` swaps them in)."""
    return public_payload(
        record,
        "combat",
        record.actor_name,
        encounter=record.encounter_id,
        version=record.version,
        template=f"{engine.template}/_line.html",
        lines=record.lines,
        players={"lines": record.public_lines},
    )


def records_payloads(rows, engines: dict | None = None) -> list[dict]:
    """Records as the log shows them now: a move undone since (and not redone) is marked
    ``undone`` (its line greyed)."""
    engines = engines if engines is not None else {}
    undone = undone_versions(rows)
    out = []
    for row in rows:
        key = (row.encounter.system, row.encounter.kind)
        if key not in engines:
            engines[key] = engine_for(*key)
        message = record_payload(row, engines[key])
        if row.version in undone.get(row.encounter_id, ()):
            message["undone"] = True
        out.append(message)
    return out


# The chronicle: the campaign's time and bodies after the fights --------------------------


def chronicle_for(campaign) -> Encounter:
    """The campaign's chronicle (made on first use); RulesError when its rule system has
    no chronicle engine."""
    engine_for(campaign.rule_system, Encounter.Kind.CHRONICLE)
    found = Encounter.objects.filter(campaign=campaign, kind=Encounter.Kind.CHRONICLE).first()
    if found is not None:
        return found
    try:
        with transaction.atomic():
            return Encounter.objects.create(
                campaign=campaign,
                kind=Encounter.Kind.CHRONICLE,
                name="Krönika",
                system=campaign.rule_system,
                house_rules={},
            )
    except IntegrityError:  # another request made it first
        return Encounter.objects.get(campaign=campaign, kind=Encounter.Kind.CHRONICLE)


def body_id(character_id: int) -> str:
    return f"ch{character_id}"


def chronicle_sync(chronicle: Encounter, membership, characters=None) -> Encounter:
    """Give every character of the campaign (or `characters`) a body in the chronicle
    (the GM's command, one record each), with its VIL and Chocktolerans from the sheet
    (as a fight takes them); returns the chronicle at its new version."""
    engine = engine_of(chronicle)
    state = folded(chronicle, engine).state
    if characters is None:
        characters = chronicle.campaign.characters.order_by("pk")
    for character in characters:
        if state.body(body_id(character.pk)) is not None:
            continue
        data = {
            "type": "add_body",
            "id": body_id(character.pk),
            "name": character.name[:100] or "?",
            "character_id": character.pk,
            "willpower": max(0, min(30, int(character.levels()["willpower"]))),
        }
        _levels, derived = character.combat_stats(chronicle.campaign.house_rules)
        if isinstance(derived.get("shock_tolerance"), int):
            data["shock_tolerance"] = max(0, min(99, derived["shock_tolerance"]))
        chronicle, _record, after = command_run(
            encounter=chronicle, membership=membership, data=data, version=chronicle.version
        )
        state = after.state
    return chronicle


def fight_wounds(encounter: Encounter, engine) -> list[dict]:
    """The wounds a finished fight dealt to characters, as chronicle add_wound commands:
    each dated by its round (2 s each, p. 6) before the fight's last one. The fight
    tested Chocktolerans at each hit (p. 13): a character's last wound carries whether it
    is unconscious at the fight's end, the others that nothing is to be tested again."""
    result = folded(encounter, engine)
    state = initial_state(encounter, engine)
    found = []
    for record in records(encounter.pk, engine, versions=result.applied):
        for index, event in enumerate(record.events):
            if type(event).__name__ == "Wounded":
                target = state.get(event.id) if hasattr(state, "get") else None
                character_id = getattr(target, "character_id", None)
                if character_id is not None:
                    origin = f"e{encounter.pk}v{record.version}.{index}"
                    found.append((event, character_id, getattr(state, "round", 0), origin))
            state = engine.evolve(state, event)
    last_round = getattr(state, "round", 0)
    last_of = {event.id: origin for event, _character, _round, origin in found}

    def unconscious(event, origin: str) -> bool:
        if last_of[event.id] != origin:
            return False
        final = state.get(event.id) if hasattr(state, "get") else None
        if final is None or not getattr(final, "alive", True):
            return False
        return not getattr(final, "conscious", True)

    return [
        {
            "type": "add_wound",
            "id": body_id(character_id),
            "area": event.area,
            "damage": event.damage,
            "bleed_rate": event.bleed_rate,
            "organ_trauma": event.organ_trauma,
            "limb_state": event.limb_state,
            "source": encounter.name[:100],
            "origin": origin,
            "ago_seconds": min(3600, 2 * max(0, last_round - round_)),
            "survival": encode(event.survival) if event.survival else None,
            "unconscious": unconscious(event, origin),
            "burn": getattr(event, "burn", False),  # p. 14: care does not help a burn
        }
        for event, character_id, round_, origin in found
    ]


def chronicle_import(encounter: Encounter, membership) -> None:
    """A fight has ended: its characters' wounds go on in the campaign's chronicle."""
    try:
        chronicle = chronicle_for(encounter.campaign)
    except RulesError:
        return  # the rule system keeps no chronicle
    wounds = fight_wounds(encounter, engine_of(encounter))
    if not wounds:
        return
    ids = {w["id"] for w in wounds}
    characters = encounter.campaign.characters.filter(
        pk__in=[int(i.removeprefix("ch")) for i in ids]
    ).order_by("pk")
    # The fight's end is stored already: whatever goes wrong here is logged, and the GM
    # undoes the end and ends again (nothing is carried over twice) or adds the wound.
    try:
        chronicle = chronicle_sync(chronicle, membership, characters)
        for data in wounds:
            try:
                chronicle, _record, _after = command_run(
                    encounter=chronicle, membership=membership, data=data,
                    version=chronicle.version,
                )
            except RulesError as refused:  # carried over already, or dead in the chronicle
                log.info("chronicle: %s's wound not carried over: %s", data["id"], refused)
    except (Stale, RulesError):
        log.warning("chronicle: %s's wounds not carried over (the chronicle changed meanwhile)",
                    encounter)


# The character sheet's body (issue 9): the chronicle read, never made ---------------------


def chronicle_of(campaign_id: int) -> Encounter | None:
    """The campaign's chronicle if the GM's chronicle page has made it, else None: a
    reader (a character's sheet) makes nothing."""
    found = Encounter.objects.filter(campaign_id=campaign_id, kind=Encounter.Kind.CHRONICLE)
    return found.first()


def records_concerning(encounter_id: int, combatant_id: str, *, limit: int) -> list[tuple]:
    """The newest `limit` records of an encounter with an event of `combatant_id`'s (an
    event's "id"), newest first, as (version, seq, events, created_at): one query, the
    filter in the database. PostgreSQL tests JSON containment; SQLite, which has none,
    the stored JSON text, a superset (the caller reads each event's "id" again)."""
    rows = CombatRecord.objects.filter(encounter_id=encounter_id)
    if connection.features.supports_json_field_contains:
        rows = rows.filter(events__contains=[{"id": combatant_id}])
    else:
        needle = json.dumps({"id": combatant_id})[1:-1]  # "id": "ch7", as stored
        rows = rows.alias(events_text=Cast("events", TextField())).filter(
            events_text__contains=needle
        )
    rows = rows.order_by("-version").values_list("version", "seq", "events", "created_at")
    return list(rows[:limit])


# A character's latest fight (the sheet's damage rows: characters/damage.py) ---------------


def fights_of(campaign_id: int, character_id: int, *, system: str, limit: int) -> list[Encounter]:
    """The campaign's newest `limit` fights (kind "combat" of `system`) whose log adds
    character `character_id` as a combatant, newest first: one query, the filter in the
    database whatever the number of fights (a record's events hold the added combatant
    with its "character_id"). PostgreSQL tests JSON containment; SQLite, which has none,
    the stored JSON text. The log says the character was added, not that it is still in
    the fight (removed, or the adding undone): the caller folds each to see."""
    added = CombatRecord.objects.filter(
        encounter_id=OuterRef("pk"), command="add_combatant"
    )
    if connection.features.supports_json_field_contains:
        added = added.filter(events__contains=[{"combatant": {"character_id": character_id}}])
    else:
        needle = json.dumps({"character_id": character_id})[1:-1]  # "character_id": 7
        added = added.alias(events_text=Cast("events", TextField())).filter(
            Q(events_text__contains=f"{needle},") | Q(events_text__contains=f"{needle}}}")
        )
    fights = Encounter.objects.filter(
        campaign_id=campaign_id, kind=Encounter.Kind.COMBAT, system=system
    ).filter(Exists(added))
    return list(fights.order_by("-created_at", "-pk")[:limit])


def character_fights(campaign_id: int, character_id: int, engine, *,
                     exclude: int | None = None):
    """The campaign's newest fights with the character (`fights_of`, one query) as
    (encounter, folded state), newest first; a fight whose log this engine no longer reads
    is skipped (its own page says so)."""
    # Three: the character may have left the newest (removed, or its adding undone).
    fights = fights_of(campaign_id, character_id, system=engine.system, limit=3)
    for fight in fights:
        if fight.pk == exclude:
            continue
        try:
            yield fight, folded(fight, engine).state
        except RulesError:
            log.warning("encounter %s unreadable for character %s", fight.pk, character_id)


def last_body(encounter: Encounter, engine, character_id: int) -> dict:
    """The character's body at the end of its campaign's newest other fight, for an engine
    that carries wounds from one fight to the next (``body_of``); {} when it has none or
    was unhurt there."""
    body, _running = latest_body(encounter.campaign_id, engine, character_id,
                                 exclude=encounter.pk)
    return body


def latest_body(campaign_id: int, engine, character_id: int, *,
                exclude: int | None = None) -> tuple[dict, bool]:
    """The character's body in its campaign's newest fight that has it (``body_of``: {}
    unhurt or none) and whether that fight is still going on."""
    body_of = getattr(engine, "body_of", None)
    if body_of is None:
        return {}, False
    for _fight, state in character_fights(campaign_id, character_id, engine, exclude=exclude):
        body = body_of(state, character_id)
        if body is not None:  # the newest fight it is still in
            return body, not state.ended
    return {}, False
