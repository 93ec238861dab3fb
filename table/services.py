"""Rolling at the live table: every die on the server, every roll numbered and broadcast."""

import datetime
import functools
import json
import secrets

from django.db import connection, transaction
from django.utils import timezone

from campaigns.models import Campaign
from rules.aoristos import dice
from rules.errors import RulesError
from table.broadcast import get_broadcaster
from table.models import MembershipEvent, NoticeEvent, RollEvent
from table.numbering import insert_numbered, next_seq, public_payload

rng = secrets.SystemRandom()  # tests replace it with scripted dice


def roll_record(
    *,
    campaign: Campaign,
    actor,
    hand: dice.Hand,
    purpose: dice.Purpose = dice.Purpose.TEST,
    character=None,
    label: str = "",
    test_base: int | None = None,
    threshold: int | None = None,
    secret: bool = False,
    idempotency_key: str | None = None,
) -> RollEvent:
    """Roll `hand`, store it as the campaign's next event and broadcast it after commit.
    With a test base and threshold it is a success test (p. 5).

    With an `idempotency_key` the actor already rolled with, nothing is rolled or sent
    again: that first roll is returned.
    """
    rolled = dice.roll(hand, rng, purpose)
    event = RollEvent(
        campaign=campaign,
        actor=actor,
        character=character,
        kind=RollEvent.Kind.TEST if threshold is not None else RollEvent.Kind.HAND,
        label=label,
        hand=str(rolled.hand),
        dice=list(rolled.dice),
        counted=list(rolled.counted),
        result=rolled.result,
        test_base=test_base,
        threshold=threshold,
        secret=secret,
        created_at=timezone.now(),
        idempotency_key=idempotency_key,
    )
    return store_and_publish(event)


def store_and_publish(event: RollEvent) -> RollEvent:
    """Store a new roll as the campaign's next event and broadcast it after commit; when its
    actor already rolled with its idempotency key, that first roll instead (nothing sent)."""
    if not insert(event):
        return RollEvent.objects.select_related("campaign", "actor", "character").get(
            actor=event.actor, idempotency_key=event.idempotency_key
        )
    message = payload(event)
    campaign_id = event.campaign_id
    transaction.on_commit(lambda: get_broadcaster().publish(campaign_id, message))
    return event


INSERTED = (
    "campaign",
    "actor",
    "character",
    "kind",
    "label",
    "hand",
    "dice",
    "counted",
    "result",
    "test_base",
    "threshold",
    "secret",
    "detail",
    "created_at",
    "idempotency_key",
)


def insert(event: RollEvent) -> bool:
    """Store the roll `event` with the campaign's next number (`insert_numbered`). False
    when the actor already has a roll with its idempotency key (nothing stored)."""
    return insert_numbered(
        event,
        INSERTED,
        '("actor_id", "idempotency_key") WHERE "idempotency_key" IS NOT NULL',
    )


def system_test_record(
    *,
    campaign: Campaign,
    actor,
    character,
    system,
    plan,
    label: str,
    secret: bool = False,
    idempotency_key: str | None = None,
    pair: dict | None = None,
) -> RollEvent:
    """Roll the test `plan` of `system` (rules.system: not Aoristos, whose tests are
    ``roll_record``'s), store it as the campaign's next event and broadcast it after
    commit; a retried key returns its first roll, as ``roll_record`` does. ``pair``: whom
    a social roll was with (``{"key", "name"}``), kept so the next roll with them carries
    from it (T10)."""
    result = system.roll_test(plan, rng)
    event = RollEvent(
        campaign=campaign,
        actor=actor,
        character=character,
        kind=RollEvent.Kind.TEST,
        label=label,
        hand=plan.notation,
        dice=list(result.dice),
        counted=list(result.marks.get("counted", result.dice)),
        result=result.total,
        test_base=plan.target,
        threshold=None,
        secret=secret,
        detail={"system": system.name, **system.stored(result)}
        | ({"situation": situation} if (situation := system.situation_of(result)) else {})
        | ({"toward": pair["key"], "toward_name": pair["name"]} if pair else {}),
        created_at=timezone.now(),
        idempotency_key=idempotency_key,
    )
    return store_and_publish(event)


def system_opposed_record(
    *, campaign: Campaign, actor, character, system, opposition: dict, secret: bool = False,
    idempotency_key: str | None = None,
) -> RollEvent:
    """Roll an opposed test of `system` (``EnteredTestForm.opposition``), store it as the
    campaign's next event and broadcast it after commit, as ``roll_record`` does.

    Against an opponent both sides roll until one wins (a tie rolls again); against an
    earlier roll only the tested side rolls, and its result is compared with the one
    remembered. The columns hold the tested side's (last) roll; ``detail`` also holds the
    opponent's or the earlier roll's, and who won."""
    plan = opposition["a"]
    if "earlier" in opposition:
        result = system.roll_test(plan, rng)
        earlier = opposition["earlier"]
        against = {
            "seq": earlier.seq, "name": opposition["name"], "label": earlier.label,
            "stored": system.stored(opposition["result"]),
            "overcomes": system.overcomes(result, opposition["result"]),
        }
        detail = {"against": against}
    else:
        rolled = system.roll_opposed(plan, opposition["b"], rng)
        opponent = opposition["character"]
        if "sequence" in rolled.marks:
            # A duel (T10): the sides' rolls in rolled order; the columns hold the roll that
            # decided it, whoever made it.
            rolls = [r for pair in rolled.rounds for r in pair if r is not None]
            result = last_b = rolls[-1]
            duel = dict(rolled.marks) | {"rolls": [system.stored(r) for r in rolls]}
            ties = []
        else:
            result, last_b = rolled.rounds[-1]
            duel = None
            ties = [[system.stored(a), system.stored(b)] for a, b in rolled.rounds[:-1]]
        detail = {"opposed": {
            "name": opposition["name"], "label": opposition["b"].label,
            "character_id": opponent.pk if opponent else None,
            "stored": system.stored(last_b),
            "ties": ties,
            "winner": rolled.winner, "relative_effect": rolled.relative_effect,
        } | ({"duel": duel} if duel else {})}
    event = RollEvent(
        campaign=campaign,
        actor=actor,
        character=character,
        kind=RollEvent.Kind.TEST,
        label=plan.label,
        hand=plan.notation,
        dice=list(result.dice),
        counted=list(result.marks.get("counted", result.dice)),
        result=result.total,
        test_base=plan.target,
        secret=secret,
        detail={"system": system.name, **system.stored(result), **detail},
        created_at=timezone.now(),
        idempotency_key=idempotency_key,
    )
    return store_and_publish(event)


def system_hand_record(
    *, campaign: Campaign, actor, system, plan, secret: bool = False,
    idempotency_key: str | None = None,
) -> RollEvent:
    """Roll the bare hand `plan` of `system` (rules.system: "1T10", "Ob3T6"), store it as
    the campaign's next event and broadcast it after commit, as ``roll_record`` does."""
    result = system.roll_hand(plan, rng)
    event = RollEvent(
        campaign=campaign,
        actor=actor,
        kind=RollEvent.Kind.HAND,
        hand=plan.notation,
        dice=list(result.dice),
        counted=list(result.marks.get("counted", result.dice)),
        result=result.total,
        secret=secret,
        detail={"system": system.name, **system.stored_hand(result)},
        created_at=timezone.now(),
        idempotency_key=idempotency_key,
    )
    return store_and_publish(event)


def system_fields(event: RollEvent) -> dict:
    """What the log line of another system's test shows: its success, its marks (Phobia:
    effect, perfect, fumble) and its own template (``<system template>/_roll.html``)."""
    from rules import get_system

    system = get_system(event.detail["system"])
    template = f"{system.template}/_roll.html"
    if event.detail.get("hand"):
        hand = system.hand_of(event.detail)
        return {
            "system": system.name, "template": template, "total": hand.total,
            "success": None, "margin": None, "first": list(hand.first),
            "marks": dict(hand.marks), "open_ended": hand.plan.high is None,
        }
    result = system.result_of(event.detail)
    other = opposition_fields(system, event.detail)
    return {
        **other,
        "system": system.name,
        "template": template,
        "total": result.total,
        # An opposed test's line is marked by whether the tested side won.
        "success": (
            other["opposed"]["winner"] == 1 if "opposed" in other
            else other["against"]["overcomes"] if "against" in other
            else result.success
        ),
        "margin": None,
        "first": list(result.first),
        "marks": dict(result.marks),
        "situation": event.detail.get("situation"),  # one this roll opened
        "in_situation": result.plan.params.get("situation"),  # one it was rolled in
        "burden": result.plan.params.get("burden"),  # Ob dice an overload added
        "params": dict(result.plan.params),  # what the test was planned with
        "toward": event.detail.get("toward_name"),  # whom a social roll was with
    }


def opposition_fields(system, detail: dict) -> dict:
    """The other side of an opposed test for its log line: the opponent's roll and who won
    (``opposed``), or the earlier roll it was against and whether it was overcome
    (``against``); nothing for a plain test."""
    if "opposed" in detail:
        opposed = detail["opposed"]
        other = system.result_of(opposed["stored"])
        return {"opposed": {
            "name": opposed["name"], "label": opposed["label"], "chance": other.plan.target,
            "notation": other.plan.notation, "total": other.total, "marks": dict(other.marks),
            "faces": faces(list(other.dice), other.marks.get("counted", list(other.dice))),
            "first": list(other.first), "winner": opposed["winner"],
            "relative_effect": opposed["relative_effect"], "ties": len(opposed["ties"]),
        } | ({"duel": duel_fields(system, opposed["duel"])} if "duel" in opposed else {})}
    if "against" in detail:
        against = detail["against"]
        earlier = system.result_of(against["stored"])
        return {"against": {
            "seq": against["seq"], "name": against["name"], "label": against["label"],
            "chance": earlier.plan.target, "effect": earlier.marks["effect"],
            "perfect": earlier.marks["perfect"], "overcomes": against["overcomes"],
        }}
    return {}


def duel_fields(system, duel: dict) -> dict:
    """A duel's rolls for its log line (T10): who started, each roll in order with its
    side, dice, carry and outcome, and the successes each side reached."""
    sides = duel["sequence"]
    rolls = []
    for side, stored in zip(sides, duel["rolls"], strict=True):
        result = system.result_of(stored)
        rolls.append({
            "side": side, "total": result.total, "dice": list(result.dice),
            "success": result.success, "marks": dict(result.marks),
            "carry": result.plan.params.get("carry", 0), "bonus": result.plan.params["bonus"],
        })
    return {"a_first": duel["a_first"], "initiative": duel["initiative"], "rolls": rolls,
            "successes": duel["successes"], "goal": duel["goal"]}


def payload(event: RollEvent, names: tuple[str, str] | None = None) -> dict:
    """Everything about a roll, as plain JSON-able data (what the broadcaster carries).
    `names`: its actor's username and its character's name, when they were read with the
    row (``log_rows``) rather than loaded as relations."""
    if event.detail is not None:
        return base_payload(event, None, names) | system_fields(event)
    return base_payload(event, event.outcome(), names)


def base_payload(event: RollEvent, outcome, names: tuple[str, str] | None = None) -> dict:
    if names is None:
        names = (
            event.actor.username if event.actor else "",
            event.character.name if event.character else "",
        )
    return {
        "seq": event.seq,
        "faces": faces(event.dice, event.counted),
        "kind": event.kind,
        "actor": names[0],
        "character": names[1],
        "label": event.label,
        "hand": event.hand,
        "dice": event.dice,
        "counted": event.counted,
        "result": event.result,
        "test_base": event.test_base,
        "threshold": event.threshold,
        "total": outcome.total if outcome else None,
        "success": outcome.success if outcome else None,
        "margin": outcome.margin if outcome else None,
        "secret": event.secret,
        "created_at": event.created_at.isoformat(),
        "time": timezone.localtime(event.created_at).strftime("%H:%M"),
    }


def faces(rolled: list[int], counted: list[int]) -> list[dict]:
    """Each die with whether it counts (counted is a subsequence of the dice, in order)."""
    marked, remaining = [], list(counted)
    for value in rolled:
        counts = bool(remaining) and remaining[0] == value
        if counts:
            remaining.pop(0)
        marked.append({"value": value, "counted": counts})
    return marked


SECRET_FIELDS = ("seq", "kind", "actor", "secret", "created_at", "time")


def visible(message, *, is_gm: bool) -> dict:
    """What a viewer may see of an event: a secret roll is the GM's alone; the others learn
    only that the GM rolled in secret (no hand, dice, label or result). An event with a
    "players" part (a combat record, whose NPC numbers are the GM's) shows players that
    part instead."""
    if message["secret"] and not is_gm:
        return {key: message[key] for key in SECRET_FIELDS}
    shown = dict(message)
    players = shown.pop("players", None)
    if players is not None and not is_gm:
        shown.update(players)
    return shown


def whole_for_everyone(message) -> bool:
    """Whether every member may see all of `message` (`visible` gives players all of
    it): what may travel to other server processes whole (`table.broadcast`). A secret
    roll, or a record whose players' part differs from the GM's, may not."""
    if message["secret"]:
        return False
    players = message.get("players")
    return players is None or all(message.get(key) == value for key, value in players.items())


def events_after(campaign_id: int, after: int, *, is_gm: bool, limit: int = 500) -> list[dict]:
    """Stored events (rolls, membership changes, notices, combat records) with seq > after,
    oldest first, at most `limit`, as this viewer may see them: one query (`log_rows`),
    one snapshot, so what commits during the read is either all there or after the last
    one returned: never a later number without an earlier one.

    What the live stream catches up with: a combat record comes as it was stored, not
    marked ``undone`` (the page greys it when the undo's own line arrives after it)."""
    return [visible(message, is_gm=is_gm) for message in log_rows(campaign_id, after, limit)]


NO_END = 2**63 - 1  # above every seq: "no bound" for `log_numbers`
SOURCES = ("roll", "member", "notice", "combat")  # `log_numbers`' source index -> table


@functools.cache
def _log_numbers_sql(vendor: str, newest_first: bool) -> str:
    """One statement over the four event tables: each table's `limit` next numbers (its
    (campaign, seq) index), merged and cut to `limit`. One statement is one snapshot on
    PostgreSQL and on SQLite, whatever transaction it runs in."""
    from combat.models import CombatRecord

    qn = connection.ops.quote_name
    compare, order = ("<", "DESC") if newest_first else (">", "ASC")
    tables = (RollEvent, MembershipEvent, NoticeEvent, CombatRecord)
    arms = " UNION ALL ".join(
        f"SELECT * FROM (SELECT {qn('seq')}, {source} AS source, {qn('id')} "
        f"FROM {qn(model._meta.db_table)} "
        f"WHERE {qn('campaign_id')} = %s AND {qn('seq')} {compare} %s "
        f"ORDER BY {qn('seq')} {order} LIMIT %s) AS t{source}"
        for source, model in enumerate(tables)
    )
    return f"{arms} ORDER BY 1 {order} LIMIT %s"


def log_numbers(campaign_id: int, *, after: int | None = None, before: int | None = None,
                limit: int) -> list[tuple[int, int, int]]:
    """The campaign's next `limit` events after `after` (oldest first) or, with `before`,
    its `limit` newest before it (newest first): (seq, source, pk) triples, read in one
    statement. Events are numbered under the campaign row's lock and commit in that order,
    so a snapshot holds every number up to its newest."""
    newest_first = after is None
    bound = (NO_END if before is None else before) if newest_first else after
    params = [campaign_id, bound, limit] * len(SOURCES) + [limit]
    with connection.cursor() as cursor:
        cursor.execute(_log_numbers_sql(connection.vendor, newest_first), params)
        return [tuple(row) for row in cursor.fetchall()]


# The columns `log_rows` reads from every event table, with their SQL types (a column a
# table lacks is a typed NULL, which PostgreSQL needs to merge the arms).
LOG_COLUMNS = (
    ("created_at", None), ("kind", "text"), ("who", "text"), ("character", "text"),
    ("label", "text"), ("hand", "text"), ("dice", "text"), ("counted", "text"),
    ("result", "integer"), ("test_base", "integer"), ("threshold", "integer"),
    ("secret", "boolean"), ("data", "text"), ("public", "text"), ("ref", "bigint"),
    ("version", "integer"), ("system", "text"), ("encounter_kind", "text"),
)


@functools.cache
def _log_rows_sql(vendor: str) -> str:
    """One statement over the four event tables, as `_log_numbers_sql`, that reads every
    column a log line needs (with the roller's and the character's names, and a record's
    rule system), so a catch-up is one query whatever kinds of event it holds."""
    from django.contrib.auth import get_user_model

    from combat.models import CombatRecord, Encounter

    qn = connection.ops.quote_name
    character_table = RollEvent._meta.get_field("character").related_model._meta.db_table

    def json_text(column: str) -> str:
        return f"CAST({column} AS TEXT)"

    arms = {
        "roll": (
            RollEvent,
            {
                "kind": "e.kind", "who": "u.username", "character": "c.name",
                "label": "e.label", "hand": "e.hand", "dice": json_text("e.dice"),
                "counted": json_text("e.counted"), "result": "e.result",
                "test_base": "e.test_base", "threshold": "e.threshold", "secret": "e.secret",
                "data": json_text("e.detail"),
            },
            f"LEFT JOIN {qn(get_user_model()._meta.db_table)} u ON u.id = e.actor_id "
            f"LEFT JOIN {qn(character_table)} c ON c.id = e.character_id",
        ),
        "member": (
            MembershipEvent,
            {"kind": "e.kind", "who": "e.username", "ref": "e.membership_id"},
            "",
        ),
        "notice": (
            NoticeEvent, {"kind": "e.kind", "who": "e.actor", "data": json_text("e.data")}, ""
        ),
        "combat": (
            CombatRecord,
            {
                "kind": "e.command", "who": "e.actor_name", "data": json_text("e.lines"),
                "public": json_text("e.public_lines"), "ref": "e.encounter_id",
                "version": "e.version", "system": "x.system", "encounter_kind": "x.kind",
            },
            f"JOIN {qn(Encounter._meta.db_table)} x ON x.id = e.encounter_id",
        ),
    }
    selects = []
    for source, name in enumerate(SOURCES):
        model, columns, joins = arms[name]
        values = ", ".join(
            "e.created_at" if column == "created_at"
            else columns.get(column, f"CAST(NULL AS {sql_type})")
            for column, sql_type in LOG_COLUMNS
        )
        selects.append(
            f"SELECT * FROM (SELECT e.seq, {source} AS source, e.id, {values} "
            f"FROM {qn(model._meta.db_table)} e {joins} "
            f"WHERE e.campaign_id = %s AND e.seq > %s ORDER BY e.seq LIMIT %s) AS t{source}"
        )
    return " UNION ALL ".join(selects) + " ORDER BY 1 LIMIT %s"


def log_rows(campaign_id: int, after: int, limit: int) -> list[dict]:
    """The full messages (the GM's view) of the campaign's next `limit` events after
    `after`, oldest first, in one statement (one snapshot, as `log_numbers`)."""
    with connection.cursor() as cursor:
        cursor.execute(
            _log_rows_sql(connection.vendor), [campaign_id, after, limit] * len(SOURCES) + [limit]
        )
        rows = cursor.fetchall()
    engines: dict = {}
    return [row_message(campaign_id, row, engines) for row in rows]


def _json(text):
    return None if text is None else json.loads(text)


def _moment(value) -> datetime.datetime:
    """A timestamp as the database gave it: aware (PostgreSQL) or text in UTC (SQLite)."""
    if isinstance(value, str):
        value = datetime.datetime.fromisoformat(value)
    if timezone.is_naive(value):
        value = timezone.make_aware(value, datetime.UTC)
    return value


def row_message(campaign_id: int, row, engines: dict) -> dict:
    """One row of `_log_rows_sql` as the message its event's own payload function makes
    (what the broadcaster carries)."""
    seq, source, pk, *values = row
    f = dict(zip((column for column, _type in LOG_COLUMNS), values, strict=True))
    common = {"pk": pk, "campaign_id": campaign_id, "seq": seq,
              "created_at": _moment(f["created_at"])}
    name = SOURCES[source]
    if name == "roll":
        event = RollEvent(
            **common, kind=f["kind"], label=f["label"], hand=f["hand"], dice=_json(f["dice"]),
            counted=_json(f["counted"]), result=f["result"], test_base=f["test_base"],
            threshold=f["threshold"], secret=bool(f["secret"]), detail=_json(f["data"]),
        )
        return payload(event, (f["who"] or "", f["character"] or ""))
    if name == "member":
        return member_payload(MembershipEvent(
            **common, kind=f["kind"], membership_id=f["ref"], username=f["who"]
        ))
    if name == "notice":
        return notice_payload(NoticeEvent(
            **common, kind=f["kind"], actor=f["who"], data=_json(f["data"])
        ))
    from combat.models import CombatRecord
    from combat.services import record_payload
    from rules.engine import engine_for

    key = (f["system"], f["encounter_kind"])
    if key not in engines:
        engines[key] = engine_for(*key)
    record = CombatRecord(
        **common, encounter_id=f["ref"], version=f["version"], actor_name=f["who"],
        command=f["kind"], lines=_json(f["data"]), public_lines=_json(f["public"]),
    )
    return record_payload(record, engines[key])


def log_messages(numbers: list[tuple[int, int, int]]) -> list[dict]:
    """The full messages (the GM's view) of `log_numbers`' triples, in their order: one
    query per table that has any of them. A row gone since (its campaign deleted) is
    left out."""
    wanted: dict[int, list[int]] = {}
    for _seq, source, pk in numbers:
        wanted.setdefault(source, []).append(pk)
    rows: dict[tuple[int, int], dict] = {}
    for source, pks in wanted.items():
        if SOURCES[source] == "combat":
            found = list(combat_records().filter(pk__in=pks))
            rows.update(zip(((source, row.pk) for row in found), combat_payloads(found),
                            strict=True))
            continue
        events, to_message = {
            "roll": (RollEvent.objects.select_related("actor", "character"), payload),
            "member": (MembershipEvent.objects.all(), member_payload),
            "notice": (NoticeEvent.objects.all(), notice_payload),
        }[SOURCES[source]]
        rows.update(((source, event.pk), to_message(event)) for event in events.filter(pk__in=pks))
    return [rows[source, pk] for _seq, source, pk in numbers if (source, pk) in rows]


def membership_event_record(*, campaign_id: int, kind: str, membership_id: int, username: str):
    """Number a membership change in the campaign's sequence and tell the open streams after
    commit. Call it inside the transaction that makes the change."""
    event = MembershipEvent.objects.create(
        campaign_id=campaign_id,
        seq=next_seq(campaign_id),
        kind=kind,
        membership_id=membership_id,
        username=username,
    )
    message = member_payload(event)
    transaction.on_commit(lambda: get_broadcaster().publish(campaign_id, message))
    return event


def member_payload(event: MembershipEvent) -> dict:
    return public_payload(
        event, "member-" + event.kind, event.username, membership_id=event.membership_id
    )


def notice_record(*, campaign_id: int, kind: str, actor: str = "", **data) -> NoticeEvent:
    """Tell the table of an award, a journal post or a pinned recap: numbered in the
    campaign's sequence, sent to the open streams after commit. Call it inside the
    transaction that makes the change, so the notice exists exactly when the change does."""
    event = NoticeEvent.objects.create(
        campaign_id=campaign_id, seq=next_seq(campaign_id), kind=kind, actor=actor, data=data
    )
    message = notice_payload(event)
    transaction.on_commit(lambda: get_broadcaster().publish(campaign_id, message))
    return event


def open_situation(campaign_id: int, character_id: int, *, secret: bool = True) -> str | None:
    """The situation a character's newest situation roll opened (Phobia's Lugn, lines
    210-229) while nobody has ended it since; None when there is none. With ``secret``
    False (a test that is not the GM's secret one, and its odds) the GM's secret Lugn
    rolls are left out: what they made of the situation stays the GM's (docs/rules/t10.md,
    "Secret rolls"). Two indexed queries: the newest such roll, and an end told after it."""
    rolls = RollEvent.objects.filter(
        campaign_id=campaign_id, character_id=character_id, detail__has_key="situation"
    )
    if not secret:
        rolls = rolls.filter(secret=False)
    last = rolls.order_by("-seq").values_list("seq", "detail").first()
    if last is None:
        return None
    seq, detail = last
    ended = NoticeEvent.objects.filter(
        campaign_id=campaign_id, kind=NoticeEvent.Kind.SITUATION, seq__gt=seq,
        data__character_id=character_id,
    ).exists()
    return None if ended else detail["situation"]


def impressions(character, *, is_gm: bool) -> list[dict]:
    """The social carries a character is part of (T10, "Att använda DoS och DoF"): for each
    pair, the newest social roll's carry, whoever made it: the character's own with
    someone (``mine``), or another character's with it. A player does not see the GM's
    secret rolls. One query over the social rolls that name the character."""
    from django.db.models import Q

    rolls = RollEvent.objects.filter(
        Q(character_id=character.pk) | Q(detail__toward=f"character:{character.pk}"),
        campaign_id=character.campaign_id, detail__has_key="toward",
    ).select_related("character").order_by("-seq")
    if not is_gm:
        rolls = rolls.filter(secret=False)
    system = character.system
    seen, rows = set(), []
    for event in rolls[:200]:
        mine = event.character_id == character.pk
        pair = (event.detail["toward"] if mine else event.character_id, mine)
        if pair in seen:
            continue
        seen.add(pair)
        try:
            result = system.result_of(event.detail)
        except RulesError:
            continue
        rows.append({
            "mine": mine, "seq": event.seq, "label": event.label,
            "name": event.detail.get("toward_name") if mine else (
                event.character.name if event.character else "?"),
            "carry": result.marks.get("carry", 0),
        })
    return rows


def notice_payload(event: NoticeEvent) -> dict:
    return public_payload(event, "notice-" + event.kind, event.actor, **event.data)


def events_page(campaign_id: int, *, before: int | None, is_gm: bool, size: int = 30):
    """A page of the log (rolls, membership changes, notices, combat records), newest
    first, ending before `before`; and the seq to page on. One snapshot (`log_numbers`):
    the stream that a page opens after its newest event misses nothing below it."""
    numbers = log_numbers(campaign_id, before=before, limit=size + 1)
    older = numbers[size - 1][0] if len(numbers) > size else None
    messages = log_messages(numbers[:size])
    return [visible(message, is_gm=is_gm) for message in messages], older


def combat_records():
    """Encounter records, which share the campaign's sequence (combat/)."""
    from combat.models import CombatRecord

    return CombatRecord.objects.select_related("encounter")


def combat_payloads(rows) -> list[dict]:
    from combat.services import records_payloads

    return records_payloads(rows)
