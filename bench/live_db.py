"""The Django side of `bench/live.py`: seed the benchmark's database, then check it.

Run by bench/live.py with the benchmark server's environment (DATA_DIR, SQLITE_PATH, ...)
and the site's directory as the working directory:

    python bench/live_db.py seed '{"players": 1000, "rate_clients": 16, "writers": 50}'
    python bench/live_db.py check '{"campaign": 123}'
    python bench/live_db.py rebuild '{"events": 500, "records": 500, "samples": 200, "reps": 3}'
    python bench/live_db.py chronicle '{"encounters": [12, 13]}'
    python bench/live_db.py preview '{}'
    python bench/live_db.py simulation '{}'

Each prints one JSON object on stdout. Seeding is fast: one password hash for every user,
bulk inserts, one transaction. Three campaigns keep the measurements apart: "fanout" (a
GM and the players whose pages hold streams), "rate" (the 16 clients of the roll-rate
run) and "writers" (players with a character each, awarded UP to spend).

Combat: the fan-out campaign gets one started encounter and the rate campaign one per
roll-rate client and one more (commanded on two server processes: "processes"), each
with two NPCs that the GM commands, so that the GM's "end activation" for the active one
can be repeated without end (it rolls the next one's stress dice, is stored as the
campaign's next event and broadcast). `rebuild` builds an encounter of that kind in a
campaign of its own until its log holds the events (and then the records) asked for, and
times rebuilding its state from the log (`combat.services`: forget, then folded) beside
reading the same rows without decoding them.

The chronicle (issue 9): `seed` also makes `chronicles` campaigns of their own, each
with the first `chronicle_pages` fan-out players as members (their pages hold the
streams), six characters and the campaign's chronicle with a wounded body for each
(`wounded_chronicle`), so that every advance the benchmark measures starts from the
same situation; `chronicle` reads back what each measured advance stored: its events
by kind, and the living bodies before and after it.

The attack preview (issue 25, bench/preview.py): `preview` (and `seed`, asked with
"preview": true) makes a campaign of its own with a GM and one player, and an Aoristos
fight, started, of three attackers the player commands (a pistol 15 m from the target, a
carbine 25 m away, a two-handed sword in both hands 1 m away; every weapon drawn, the
magazines full) against one NPC target in a mail shirt and a helmet, with cover on one
area and another hidden. The benchmark also runs `preview` against the database of the
code it compares with (this script, with that code's tree as the working directory), so
it uses only what both have.

The GM's simulation over HTTP (issue 46, bench/simulation_wait.py): `simulation` makes,
per system, a campaign of that system with a GM of its own and an encounter set up, not
started, of bench/simulate.py's fight (three characters, not NPCs, on side a, against
four NPCs on side b, added by the GM's commands), and one more Aoristos campaign with
another GM and a player who rolls (the other table).
"""

import json
import os
import random
import statistics
import sys
from collections import Counter
from pathlib import Path
from time import perf_counter

sys.path.insert(0, os.getcwd())  # the site being measured (bench/live.py sets cwd)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "aoristos_site.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import (  # noqa: E402
    BACKEND_SESSION_KEY,
    HASH_SESSION_KEY,
    SESSION_KEY,
    get_user_model,
)
from django.contrib.auth.hashers import make_password  # noqa: E402
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402
from django.db import connection, transaction  # noqa: E402

from campaigns.models import Campaign, Membership  # noqa: E402
from campaigns.services import campaign_create  # noqa: E402
from characters import services as advancement  # noqa: E402
from characters.models import Character, DpEntry, default_skills  # noqa: E402
from combat import services as combat  # noqa: E402
from combat.models import CombatRecord  # noqa: E402
from rules.aoristos.aftermath.engine import survival  # noqa: E402
from rules.aoristos.combat import figures as combat_figures  # noqa: E402
from rules.engine import replay  # noqa: E402
from table.models import MembershipEvent, NoticeEvent, RollEvent  # noqa: E402

# Albert of the tests (tests/conftest.py); a skill at 2 so that each raise costs UP.
ATTRIBUTES = {"physique": 3, "composure": 3, "agility": 2, "alertness": 5, "willpower": 3}
SPEND_KEY = "mechanics"
AWARD = 200
User = get_user_model()


def session_for(user) -> str:
    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    return store.session_key


def users(prefix: str, count: int, password: str) -> list:
    User.objects.bulk_create(
        User(username=f"{prefix}{i:04d}", password=password) for i in range(count)
    )
    return list(User.objects.filter(username__startswith=prefix).order_by("username"))


def campaign_with(gm, players: list, name: str) -> Campaign:
    # A random, large id: Redis channels are shared by every process on the Redis server
    # (the test suite's too), so the benchmark's campaigns should not meet theirs.
    campaign = campaign_create(gm=gm, name=name, pk=random.randrange(10**8, 10**9))
    Membership.objects.bulk_create(
        Membership(campaign=campaign, user=user, role=Membership.Role.PLAYER, seat=seat)
        for seat, user in enumerate(players, start=1)
    )
    return campaign


# Two NPCs 5 m apart, on two sides; same SIN, so the first added acts first.
NPCS = [
    {"type": "add_combatant", "name": "Vakt A", "side": "a", "npc": True, "x": 0.0,
     "physique": 3, "agility": 2, "alertness": 2, "skills": {"evasion": 1},
     "weapons": ["knife"], "right": "knife"},
    {"type": "add_combatant", "name": "Vakt B", "side": "b", "npc": True, "x": 5.0,
     "physique": 3, "agility": 2, "alertness": 2, "skills": {"evasion": 1},
     "weapons": ["knife"], "right": "knife"},
]


def gm_membership(campaign: Campaign) -> Membership:
    return campaign.memberships.get(role=Membership.Role.GM)


def command(encounter_id: int, membership, data: dict, controller: int | None = None):
    """Run one command against the encounter's current version (as the pages do);
    `controller`: the user who commands the combatant an add_combatant adds."""
    from combat.models import Encounter

    version = Encounter.objects.values_list("version", flat=True).get(pk=encounter_id)
    extra = {"controller": controller} if controller is not None else {}
    return combat.command_run(
        encounter_id=encounter_id, membership=membership, data=data, version=version, **extra
    )


def started_encounter(campaign: Campaign, name: str) -> dict:
    """An encounter of the two NPCs, started: what the benchmark needs to command it."""
    membership = gm_membership(campaign)
    encounter = combat.encounter_create(campaign=campaign, name=name, house_rules={})
    for npc in NPCS:
        command(encounter.pk, membership, npc)
    encounter, _record, after = command(encounter.pk, membership, {"type": "start"})
    return {
        "id": encounter.pk,
        "version": encounter.version,
        "order": list(after.state.order),
        "active": after.state.active.id,
    }


# Six characters as a fight leaves them (p. 13-14: damage d on the torso or head bleeds
# d - 1 and adds d - 1 organtrauma, on a limb it bleeds d - 1; 5+ organtrauma is unstable:
# a healing test every hour). The two torso 6s are bandaged at once (first aid, Livräddning
# 3 with modern bandages: bleed rate 5 -> 1) and go to hospital care; the others rest.
CHRONICLE_WOUNDS = [
    {"area": "torso", "damage": 6, "aid": True},
    {"area": "torso", "damage": 6, "aid": True},
    {"area": "torso", "damage": 4},
    {"area": "torso", "damage": 3},
    {"area": "left_leg", "damage": 5},
    {"area": "right_arm", "damage": 3},
]
FIRST_AID = {"levels": [3], "equipment": ["modern_bandage"]}
HOSPITAL = {
    "activity": "cared",
    "environment": "hospital",
    "rest": "thorough",
    "care": "professional",
}


def fight_survival(organ_trauma: int) -> list:
    """The survival roll of a fight the character came out of alive (the chronicle takes a
    fight's roll as made, `combat.services.fight_wounds`): rolled until it is survived, so
    that every seeded chronicle starts with six living bodies."""
    while True:
        dice, result, trauma, alive = survival(organ_trauma, combat.rng)
        if alive:
            return [list(dice), result, trauma, alive]


def wounded_chronicle(gm, players: list, name: str) -> dict:
    """A campaign of its own whose chronicle holds six wounded characters (the GM's
    commands, as the chronicle page and a fight's end make them): what one measured
    "advance a week" starts from."""
    campaign = campaign_with(gm, players, name)
    membership = gm_membership(campaign)
    owners = players or [gm]
    characters = Character.objects.bulk_create(
        Character(
            owner=owners[i % len(owners)],
            campaign=campaign,
            name=f"Wounded {i + 1}",
            attributes=ATTRIBUTES,
            skills=default_skills(),
        )
        for i in range(len(CHRONICLE_WOUNDS))
    )
    chronicle = combat.chronicle_sync(combat.chronicle_for(campaign), membership)
    aided = []
    for character, wound in zip(characters, CHRONICLE_WOUNDS, strict=True):
        body = combat.body_id(character.pk)
        data = {
            "type": "add_wound",
            "id": body,
            "area": wound["area"],
            "damage": wound["damage"],
            "source": "Bench: the fight",
        }
        trauma = combat_figures.wound(wound["damage"], wound["area"])["organ_trauma"]
        if trauma:
            data["survival"] = fight_survival(trauma)
        command(chronicle.pk, membership, data)
        if wound.get("aid"):
            command(chronicle.pk, membership, {"type": "first_aid", "id": body, **FIRST_AID})
            aided.append(body)
    chronicle, _record, after = command(
        chronicle.pk, membership, {"type": "set_circumstances", "ids": aided, **HOSPITAL}
    )
    campaign.refresh_from_db()
    return {
        "campaign": campaign.pk,
        "id": chronicle.pk,
        "version": chronicle.version,
        "seq": campaign.event_seq,
        "bodies": [b.id for b in after.state.bodies],
        "alive": sum(b.alive for b in after.state.bodies),
        "organ_trauma": [b.organ_trauma for b in after.state.bodies],
        "bleed_rate": [b.bleed_rate for b in after.state.bodies],
    }


# The attack preview's fight (issue 25): one NPC target, armour on every area (mail shirt:
# torso 6, arms 4, legs 2; helmet: head 6), cover on the right leg, its left arm hidden;
# three attackers the player commands, each with a weapon drawn (magazines full, as
# add_combatant loads them), at the distances bench/preview.py's requests say.
PREVIEW_TARGET = {
    "type": "add_combatant", "name": "Målet", "side": "b", "npc": True, "x": 0.0,
    "physique": 3, "agility": 3, "alertness": 3, "skills": {"evasion": 2},
    "weapons": ["knife"], "right": "knife", "armour": ["mail_shirt", "helmet"],
}
PREVIEW_PLACE = {"type": "update_combatant", "hidden_areas": ["left_arm"],
                 "cover": {"right_leg": 3}}
PREVIEW_WEAPONS = ("pistol", "carbine", "two_handed_sword")
PREVIEW_ATTACKERS = {
    "pistol": {"type": "add_combatant", "name": "Pistolskytten", "side": "a", "npc": False,
               "x": 15.0, "agility": 3, "alertness": 3, "skills": {"firearms": 3},
               "weapons": ["pistol"], "right": "pistol"},
    "carbine": {"type": "add_combatant", "name": "Karbinskytten", "side": "a", "npc": False,
                "x": -25.0, "agility": 3, "alertness": 3, "skills": {"firearms": 3},
                "weapons": ["carbine"], "right": "carbine", "left": "carbine"},
    "sword": {"type": "add_combatant", "name": "Svärdet", "side": "a", "npc": False,
              "y": 1.0, "physique": 4, "agility": 3, "alertness": 3,
              "skills": {"melee_weapons": 3},
              "weapons": ["two_handed_sword"], "right": "two_handed_sword",
              "left": "two_handed_sword"},
}


@transaction.atomic
def preview_fight() -> dict:
    """The attack preview's campaign (a GM, one player) and fight, started: the ids the
    benchmark's requests name, and a session for the GM and for the player."""
    password = make_password("bench-password")
    tag = f"b{random.randrange(10**6):06d}-"
    gm = users(f"{tag}preview-gm", 1, password)[0]
    player = users(f"{tag}preview-p", 1, password)[0]
    campaign = campaign_with(gm, [player], "Bench: preview")
    membership = gm_membership(campaign)
    encounter = combat.encounter_create(campaign=campaign, name="Bench: preview", house_rules={})
    _e, _r, after = command(encounter.pk, membership, PREVIEW_TARGET)
    target = after.state.combatants[-1].id
    command(encounter.pk, membership, PREVIEW_PLACE | {"id": target})
    attackers = {}
    for key, data in PREVIEW_ATTACKERS.items():
        _e, _r, after = command(encounter.pk, membership, data, controller=player.pk)
        attackers[key] = after.state.combatants[-1].id
    encounter, _record, after = command(encounter.pk, membership, {"type": "start"})
    state = after.state
    return {
        "campaign": campaign.pk,
        "id": encounter.pk,
        "version": encounter.version,
        "target": target,
        "attackers": attackers,
        # what each attacker holds (right and left hand) and the rounds in it
        "held": {
            key: [state.get(cid).right, state.get(cid).left, state.get(cid).rounds(weapon)]
            for (key, cid), weapon in zip(attackers.items(), PREVIEW_WEAPONS, strict=True)
        },
        "gm": session_for(gm),
        "player": session_for(player),
    }


@transaction.atomic
def seed(
    players: int,
    rate_clients: int,
    writers: int,
    chronicles: int = 0,
    chronicle_pages: int = 0,
    preview: bool = False,
) -> dict:
    password = make_password("bench-password")
    tag = f"b{random.randrange(10**6):06d}-"
    gm = users(f"{tag}gm", 1, password)[0]

    fanout_players = users(f"{tag}p", players, password)
    fanout = campaign_with(gm, fanout_players, "Bench: fan-out")

    rate_players = users(f"{tag}r", rate_clients, password)
    rate = campaign_with(gm, rate_players, "Bench: roll rate")

    writer_users = users(f"{tag}w", writers, password)
    written = campaign_with(gm, writer_users, "Bench: writers")
    characters = Character.objects.bulk_create(
        Character(
            owner=user,
            campaign=written,
            name=f"Writer {i}",
            attributes=ATTRIBUTES,
            skills=default_skills() | {SPEND_KEY: 2},
        )
        for i, user in enumerate(writer_users)
    )
    for character in characters:
        advancement.dp_award(character=character, amount=AWARD, reason="Bench", by=gm)

    fanout_encounter = started_encounter(fanout, "Bench: fan-out")
    rate_encounters = [started_encounter(rate, f"Bench: rate {i}") for i in range(rate_clients)]
    # one more, whose commands go to one server process or the other (combat_command.py)
    two_processes = started_encounter(rate, "Bench: two processes")
    fanout.refresh_from_db()
    readers = fanout_players[:chronicle_pages]
    wounded = [wounded_chronicle(gm, readers, f"Bench: chronicle {i}") for i in range(chronicles)]
    fanout_sessions = [session_for(user) for user in fanout_players]
    return {
        "preview": preview_fight() if preview else None,
        "fanout": {
            "campaign": fanout.pk,
            "seq": fanout.event_seq,  # the encounter's set-up records are events 1..3
            "gm": session_for(gm),
            "players": fanout_sessions,
            "encounter": fanout_encounter,
        },
        "chronicle": {
            # the first fan-out players: members of every chronicle campaign, one page each
            "players": fanout_sessions[:chronicle_pages],
            "chronicles": wounded,
        },
        "rate": {
            "campaign": rate.pk,
            "players": [session_for(user) for user in rate_players],
            # one encounter per client, each commanded by the GM (a session per client)
            "gm": [session_for(gm) for _ in range(rate_clients)],
            "encounters": rate_encounters,
            "processes": two_processes | {"gm": session_for(gm)},
        },
        "writers": {
            "campaign": written.pk,
            "spend_key": SPEND_KEY,
            "writers": [
                {"session": session_for(user), "user": user.username, "character": character.pk}
                for user, character in zip(writer_users, characters, strict=True)
            ],
        },
    }


def check(campaign_id: int) -> dict:
    """What the writers left in the database: rolls per actor, whether the campaign's
    sequence numbers are 1..n with no gap or repeat, and each character's ledger."""
    campaign = Campaign.objects.get(pk=campaign_id)
    rolls = RollEvent.objects.filter(campaign=campaign)
    # The campaign's sequence numbers every event of its table: rolls, and the notices of
    # the awards the seeding made (and any membership change).
    seqs = sorted(
        [
            *rolls.values_list("seq", flat=True),
            *NoticeEvent.objects.filter(campaign=campaign).values_list("seq", flat=True),
            *MembershipEvent.objects.filter(campaign=campaign).values_list("seq", flat=True),
        ]
    )
    per_actor: dict[str, int] = {}
    for username in rolls.values_list("actor__username", flat=True):
        per_actor[username] = per_actor.get(username, 0) + 1
    ledgers = {}
    for character in Character.objects.filter(campaign=campaign).select_related("owner"):
        entries = list(DpEntry.objects.filter(character=character).order_by("pk"))
        problems = []
        for before, after in zip(entries, entries[1:], strict=False):
            if after.dp_before != before.dp_after:
                problems.append(
                    f"entry {after.pk}: dp_before {after.dp_before} != {before.dp_after}"
                )
        for entry in entries:
            if entry.dp_after != entry.dp_before + entry.amount:
                problems.append(f"entry {entry.pk}: dp_after != dp_before + amount")
        undone = [e.undoes_id for e in entries if e.undoes_id]
        if len(undone) != len(set(undone)):
            problems.append("a spend undone twice")
        spends = [e for e in entries if e.kind == DpEntry.Kind.SPEND]
        undos = [e for e in entries if e.kind == DpEntry.Kind.UNDO]
        level = character.levels()[SPEND_KEY]
        if level != 2 + len(spends) - len(undos):
            problems.append(f"{SPEND_KEY} at {level}, ledger says {2 + len(spends) - len(undos)}")
        saved = character.saved_dp()
        if entries and saved != entries[-1].dp_after:
            problems.append(f"saved UP {saved} != last dp_after {entries[-1].dp_after}")
        ledgers[character.owner.username] = {
            "spends": len(spends),
            "undos": len(undos),
            "problems": problems,
        }
    return {
        "event_seq": campaign.event_seq,
        "rolls": rolls.count(),
        "events": len(seqs),
        "seqs_contiguous": seqs == list(range(1, len(seqs) + 1)),
        "event_seq_matches": campaign.event_seq == len(seqs),
        "rolls_per_actor": per_actor,
        "ledgers": ledgers,
    }


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def raw_rows(encounter_id: int, columns: str) -> list[tuple]:
    """An encounter's records, in version order, as the database gives them (the events as
    JSON text)."""
    table = connection.ops.quote_name(CombatRecord._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {columns} FROM {table} WHERE encounter_id = %s ORDER BY version",
            [encounter_id],
        )
        return cursor.fetchall()


def rebuild_times(encounter, samples: int) -> dict:
    """Time rebuilding the encounter's state from its log, `samples` times each, the kinds
    of work interleaved so that they share the machine's noise (milliseconds):

    - raw: the rows' version, events (JSON text, not decoded), undo_to and redo in version
      order through a cursor: the baseline, what reading the log costs at all;
    - json: the same through the ORM (JSONField decodes each row's events);
    - records: `combat.services.records`, the JSON decoded into the engine's events;
    - fold: `forget(); folded(encounter)`, what a process without the state in its cache
      does: read, decode and replay every record."""
    engine = combat.engine_of(encounter)
    rows = CombatRecord.objects.filter(encounter_id=encounter.pk).order_by("version")

    def raw():
        return raw_rows(encounter.pk, "version, events, undo_to, redo")

    def json_rows():
        return list(rows.values_list("version", "events", "undo_to", "redo"))

    def records():
        return combat.records(encounter.pk, engine)

    def fold():
        combat.forget()
        return combat.folded(encounter, engine)

    kinds = {"raw": raw, "json": json_rows, "records": records, "fold": fold}
    for work in kinds.values():  # warm up: connection, statements, imports
        work()
    times: dict[str, list[float]] = {name: [] for name in kinds}
    for i in range(samples):
        names = list(kinds)
        names = names[i % len(names) :] + names[: i % len(names)]  # rotate the order
        for name in names:
            began = perf_counter()
            kinds[name]()
            times[name].append((perf_counter() - began) * 1000)
    out = {}
    for name, values in times.items():
        out |= {
            f"{name}_p50": pct(values, 0.5),
            f"{name}_p99": pct(values, 0.99),
            f"{name}_max": max(values),
            f"{name}_mean": statistics.fmean(values),
        }
    return out


def rebuild(events: int, records: int, samples: int, reps: int) -> dict:
    """An encounter whose log grows by the GM's "end activation" until it holds `events`
    events, timed; then on to `records` records, timed again."""
    from combat.models import Encounter

    tag = f"b{random.randrange(10**6):06d}-"
    gm = User.objects.create(username=f"{tag}rebuild-gm", password="!")
    campaign = campaign_with(gm, [], "Bench: rebuild")
    membership = gm_membership(campaign)
    seeded = started_encounter(campaign, "Bench: rebuild")
    encounter_id, active = seeded["id"], seeded["active"]
    rows = CombatRecord.objects.filter(encounter_id=encounter_id)
    count = rows.count()
    stored = sum(len(e) for e in rows.values_list("events", flat=True))
    building = 0.0
    commands = 0
    out = {}
    for goal, target in (("events", events), ("records", records)):
        while (stored if goal == "events" else count) < target:
            began = perf_counter()
            _e, record, after = command(
                encounter_id, membership, {"type": "end_activation", "id": active}
            )
            building += perf_counter() - began
            active = after.state.active.id
            commands += 1
            count += 1
            stored += len(record.events)
        encounter = Encounter.objects.get(pk=encounter_id)
        # what is stored, counted in the database (not from what the commands returned)
        texts = [e for (e,) in raw_rows(encounter_id, "events")]
        assert len(texts) == count == encounter.version, (len(texts), count, encounter.version)
        assert sum(len(json.loads(t)) for t in texts) == stored
        rebuilt = combat.folded(encounter)
        out[goal] = {
            "records": count,
            "events": stored,
            "json_bytes": sum(len(t) for t in texts),
            "version": encounter.version,
            "round": rebuilt.state.round,
            "reps": [rebuild_times(encounter, samples) for _ in range(reps)],
        }
    out["build_seconds"] = building  # running the commands, in this process
    out["commands"] = commands
    return out


def chronicle_check(encounter_ids: list[int]) -> dict:
    """What the last record of each chronicle (the measured advance) stored: its events by
    kind, its log lines, and the living bodies before and after it."""
    from combat.models import Encounter

    out = {}
    for pk in encounter_ids:
        encounter = Encounter.objects.get(pk=pk)
        engine = combat.engine_of(encounter)
        last = CombatRecord.objects.filter(encounter_id=pk).order_by("-version").first()
        log_ = combat.records(pk, engine)
        initial = combat.initial_state(encounter, engine)
        before = replay(engine, initial, log_[:-1]).state
        after = replay(engine, initial, log_).state
        out[str(pk)] = {
            "version": encounter.version,
            "command": last.command,
            "events": len(last.events),
            "kinds": dict(Counter(e.get("_", "?") for e in last.events)),
            "lines": len(last.lines),
            "public_lines": len(last.public_lines),
            "json_bytes": len(json.dumps(last.events)),
            "alive_before": sum(b.alive for b in before.bodies),
            "alive_after": sum(b.alive for b in after.bodies),
            "bodies": len(after.bodies),
        }
    return out


@transaction.atomic
def simulation_tables() -> dict:
    """bench/simulate.py's fight per system, each in a campaign of its own (set up, not
    started), and another table whose player rolls: ids and sessions."""
    from simulate import BLOCKS, GAP, GROUP, OPPOSITION  # bench/ is this script's directory

    password = make_password("bench-password")
    tag = f"b{random.randrange(10**6):06d}-"
    fights = {}
    for system, (pc, npc) in BLOCKS.items():
        gm = users(f"{tag}sim-{system}-gm", 1, password)[0]
        campaign = campaign_create(gm=gm, name=f"Bench: simulation ({system})",
                                   rule_system=system, pk=random.randrange(10**8, 10**9))
        membership = gm_membership(campaign)
        encounter = combat.encounter_create(campaign=campaign, name=f"Bench: {system}",
                                            house_rules={})
        for side, block, count, x in (("a", pc, GROUP, 0.0), ("b", npc, OPPOSITION, GAP)):
            for i in range(count):
                command(encounter.pk, membership, {
                    "type": "add_combatant", "name": f"{side}{i + 1}", "side": side,
                    "npc": side == "b", "x": x, "y": 2.0 * i, **block})
        encounter.refresh_from_db()
        fights[system] = {"campaign": campaign.pk, "encounter": encounter.pk,
                          "version": encounter.version, "gm": session_for(gm)}
    gm = users(f"{tag}sim-other-gm", 1, password)[0]
    player = users(f"{tag}sim-other-p", 1, password)[0]
    other = campaign_with(gm, [player], "Bench: the other table")
    return {"fights": fights, "other": {"campaign": other.pk, "player": session_for(player)}}


if __name__ == "__main__":
    command_name, arguments = sys.argv[1], json.loads(sys.argv[2])
    if command_name == "seed":
        result = seed(
            arguments["players"],
            arguments["rate_clients"],
            arguments["writers"],
            arguments.get("chronicles", 0),
            arguments.get("chronicle_pages", 0),
            arguments.get("preview", False),
        )
    elif command_name == "check":
        result = check(arguments["campaign"])
    elif command_name == "rebuild":
        result = rebuild(
            arguments["events"], arguments["records"], arguments["samples"], arguments["reps"]
        )
    elif command_name == "chronicle":
        result = chronicle_check(arguments["encounters"])
    elif command_name == "preview":
        result = preview_fight()
    elif command_name == "simulation":
        result = simulation_tables()
    else:
        raise SystemExit(f"unknown command {command_name!r}")
    out = Path(arguments["out"]) if "out" in arguments else None
    text = json.dumps(result)
    if out:
        out.write_text(text)
    else:
        print(text)
